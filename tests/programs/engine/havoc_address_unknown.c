/* setup() is a kernel function without a model that gets a pointer: it may
   write anything, d.buf included, so the read through d.buf is at an address
   the encoding does not model. The verdict is UNKNOWN, and the reason names
   the call that made memory unknown.
   expect: cegar=unknown */
struct dev {
  int *buf;
};
extern void setup(struct dev *d);
struct dev d;
int v;
int main(void) {
  d.buf = &v;
  setup(&d);
  if (*d.buf == 5) {
  ERROR:;
  }
  return 0;
}
