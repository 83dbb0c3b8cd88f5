/* A 3-bit field wraps around at 8.
 * expect: cegar=false */
struct flags { unsigned int a : 1; unsigned int b : 3; };
struct flags g = { .a = 1, .b = 7 };
int main(void) {
  g.b = g.b + 1;
  if (g.b == 0 && g.a == 1) { ERROR: ; }
  return 0;
}
