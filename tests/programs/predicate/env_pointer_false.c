/* An environment pointer (uninitialised local of main, as in LDV's
   environment models) read past many writes to the module's globals.
   expect: cegar=false */
struct cfg { int mode; int flags[8]; };
struct dev { int state; int irq; };
struct cfg table[4] = { { 1, { 1, 2, 3, 4, 5, 6, 7, 8 } }, { 2, { 0 } },
                        { 3, { 9, 9, 9 } }, { 4, { 1 } } };
int count;
int probe(struct dev *d) {
  count = count + 1;
  if (d->state == 3 && d->irq > table[2].mode) {
    return 0;
  }
  return -1;
}
int main(void) {
  struct dev *d;
  if (probe(d) == 0) {
    ERROR: ;
  }
  return 0;
}
