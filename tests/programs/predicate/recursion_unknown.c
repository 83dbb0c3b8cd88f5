/* Recursion is cut: the recursive call's effect is not modelled, so no
   proof, even though the label is unreachable. */
int g = 0;
int f(int n) { if (n > 0) { g = g + 1; return f(n - 1); } return 0; }
int main(void) { f(3); if (g > 3) { ERROR: ; } return 0; }
