/* An LDV-style lock model checked around a loop: the loop head needs the
   predicate ldv_mutex == 1 to prove that no path double-locks.
   expect: cegar=true */
extern int __VERIFIER_nondet_int(void);
void ldv_error(void) { ERROR: goto ERROR; }
int ldv_mutex = 1;
void mutex_lock(void) { if (ldv_mutex != 1) ldv_error(); ldv_mutex = 2; }
void mutex_unlock(void) { if (ldv_mutex != 2) ldv_error(); ldv_mutex = 1; }
int work(int n) { int i, s = 0; for (i = 0; i < n; i++) s += i; return s; }
int main(void) {
  while (__VERIFIER_nondet_int()) {
    mutex_lock();
    if (__VERIFIER_nondet_int())
      work(__VERIFIER_nondet_int());
    mutex_unlock();
  }
  return 0;
}
