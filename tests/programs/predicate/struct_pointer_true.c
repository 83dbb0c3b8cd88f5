/* Writes through a pointer stored in a struct reach the pointee.
 * expect: cegar=true */
struct dev { int state; int *p; };
int main(void) {
  struct dev d;
  int x = 5;
  d.p = &x;
  d.state = 0;
  *d.p = 7;
  if (x != 7 || d.state != 0) { ERROR: ; }
  return 0;
}
