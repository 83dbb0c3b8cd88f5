/* sizeof of a variable-length array is its run-time length: not 0.
 * expect: symexec=false|unknown */
extern int __VERIFIER_nondet_int(void);
int main(void)
{
  int n = __VERIFIER_nondet_int();
  if (n < 1 || n > 8)
    return 0;
  {
    int a[n];
    a[0] = 0;
    if (sizeof(a) != 0) {
    ERROR:
      return 1;
    }
  }
  return 0;
}
