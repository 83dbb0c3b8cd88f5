/* The error path is infeasible inside one block: `x > 0` contradicts what
   is known where the block starts, after first(), and the block ends at
   the entry of second(), where nothing is tracked. The later conditions
   (on a and b) play no part.
   expect: cegar=true */
extern int __VERIFIER_nondet_int(void);
int g;
void first(int v) { g = v; }
void second(int v) { g = g + v; }
int main(void) {
  int x = __VERIFIER_nondet_int();
  int a = __VERIFIER_nondet_int();
  int b = __VERIFIER_nondet_int();
  if (x > 0) return 0;
  first(1);
  if (x > 0) {
    second(a);
    if (a > 3) {
      if (b < 7) { ERROR: ; }
    }
  }
  return 0;
}
