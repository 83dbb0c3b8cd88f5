/* fill_dev may write anything into d, so d.buf is an unmodelled pointer.
   The write through it could land on any object, with any width: the
   arrays of the encoding would not show that, so no counterexample rests
   on it, although the error condition itself does not read memory. */
struct dev { char *buf; int len; };
extern void fill_dev(struct dev *d);
extern int __VERIFIER_nondet_int(void);
int main(void) {
  struct dev d;
  int n = __VERIFIER_nondet_int();
  fill_dev(&d);
  *d.buf = 1;
  if (n == 7) {
  ERROR:
    return 1;
  }
  return 0;
}
