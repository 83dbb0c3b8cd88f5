/* Any input above 3 reaches the error label: FALSE. */
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  int x = __VERIFIER_nondet_int();
  if (x > 3) {
  ERROR:
    return 1;
  }
  return 0;
}
