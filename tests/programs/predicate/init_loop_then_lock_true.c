/* An initialisation loop runs a constant number of times before the
   locking. An abstract error path that leaves the loop early is
   infeasible through the loop's own test, and also through the lock's
   state. Refinement takes the reason that does not count the loop's
   iterations: one refinement, not one per iteration.
   expect: cegar=true */
int table[40];
int locked = 0;
void lock(void) { if (locked) { ERROR: ; } locked = 1; }
void unlock(void) { locked = 0; }
void init(int n) {
  int i;
  for (i = 0; i < n; i++)
    table[i] = i;
}
int main(void) {
  init(40);
  lock();
  unlock();
  lock();
  return 0;
}
