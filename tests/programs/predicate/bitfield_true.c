/* Bit-fields share a storage unit: writing one keeps its neighbours.
 * expect: cegar=true */
struct flags { unsigned int a : 1; unsigned int b : 3; int c : 4; unsigned int d; };
struct flags g = { .a = 1, .b = 5 };
int main(void) {
  g.c = -2;
  g.b = g.b + 1;
  if (g.a != 1 || g.b != 6 || g.c != -2 || g.d != 0) { ERROR: ; }
  return 0;
}
