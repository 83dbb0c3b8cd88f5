/* A million loop iterations, each with a choice: symbolic execution cannot
 * finish, and a small budget cuts it off. */
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  int i = 0, s = 0;
  while (i < 1000000) {
    if (__VERIFIER_nondet_int())
      s = s + 3;
    i++;
  }
  if (s == 7) {
  ERROR:
    return 1;
  }
  return 0;
}
