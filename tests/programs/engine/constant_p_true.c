/* __builtin_constant_p of a variable is 0 without optimisation, and of a
 * constant 1: the two branches of the kernel's idiom never mix up.
 * expect: symexec=true */
int main(void)
{
  int x = 3;
  if (!__builtin_constant_p(5))
    goto ERROR;
  return x;
ERROR:
  return 1;
}
