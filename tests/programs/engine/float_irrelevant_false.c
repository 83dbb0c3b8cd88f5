/* Floating point is not modelled (its values are havoc symbols); the error
   condition does not depend on them.
   expect: cegar=false */
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int n = __VERIFIER_nondet_int();
  double scale = n * 0.5;
  int speed = (int)scale;
  if (n == 7) {
  ERROR:
    return 1;
  }
  return speed;
}
