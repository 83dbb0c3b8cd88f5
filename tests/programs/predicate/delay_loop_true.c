/* A delay loop counts down from 100 before each lock. An error path that
   leaves the loop early is infeasible through the counter, and the unsat
   core of each one names the counter: refinement unrolls the loop one
   value at a time (ms == 0, ms == 1, ...). Once it steps, the predicates
   of the whole path are tracked, and the lock's state refutes every path
   without unrolling the loop to its end.
   expect: cegar=true */
extern int __VERIFIER_nondet_int(void);
int locked = 0;
void lock(void) { if (locked) { ERROR: ; } locked = 1; }
void unlock(void) { locked = 0; }
void delay(void) {
  unsigned long ms = 100;
  while (ms--) { }
}
int main(void) {
  while (__VERIFIER_nondet_int()) {
    delay();
    lock();
    unlock();
  }
  return 0;
}
