/* The recursive call writes through its pointer argument: memory becomes
   arbitrary after it. `cell` ends at 1, so the label is reachable, but only
   through that over-approximation.
   expect: cegar=unknown */
int cell;
void fill(int *p, int n) { if (n > 0) { *p = n; fill(p, n - 1); } }
int main(void) { cell = 0; fill(&cell, 2); if (cell == 1) { ERROR: ; } return 0; }
