/* expect: cegar=false */
struct dev { int state; int *p; };
int main(void) {
  struct dev d;
  int x = 5;
  d.p = &x;
  d.state = 0;
  *d.p = 7;
  if (x == 7) { ERROR: ; }
  return 0;
}
