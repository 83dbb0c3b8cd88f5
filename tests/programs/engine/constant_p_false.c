/* GCC folds __builtin_constant_p of an integer constant expression to 1.
 * expect: symexec=false */
int main(void)
{
  int x = 3;
  if (__builtin_constant_p(5) && __builtin_constant_p(2 * 8 + 1)) {
  ERROR:
    return 1;
  }
  return x;
}
