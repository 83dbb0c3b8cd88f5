/* Recursion is cut: the recursive call is taken as assigning `g` any value.
   The label is reachable (g ends at 3), but only through that
   over-approximation: no proof, and no counterexample.
   expect: cegar=unknown */
int g = 0;
int f(int n) { if (n > 0) { g = g + 1; return f(n - 1); } return 0; }
int main(void) { f(3); if (g == 3) { ERROR: ; } return 0; }
