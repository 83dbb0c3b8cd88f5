/* The error depends on a floating-point result, which is not modelled.
 * expect: cegar=unknown */
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  double scale = n * 0.5;
  int speed = (int)scale;
  if (speed == 3) {
  ERROR:
    return 1;
  }
  return 0;
}
