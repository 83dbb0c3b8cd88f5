/* The same lock model; one branch returns with the lock held, so the next
   iteration locks twice.
   expect: cegar=false */
extern int __VERIFIER_nondet_int(void);
void ldv_error(void) { ERROR: goto ERROR; }
int ldv_mutex = 1;
void mutex_lock(void) { if (ldv_mutex != 1) ldv_error(); ldv_mutex = 2; }
void mutex_unlock(void) { if (ldv_mutex != 2) ldv_error(); ldv_mutex = 1; }
int handler(int cmd) {
  mutex_lock();
  if (cmd == 3)
    return -1; /* lock not released */
  mutex_unlock();
  return 0;
}
int main(void) {
  while (__VERIFIER_nondet_int())
    handler(__VERIFIER_nondet_int());
  return 0;
}
