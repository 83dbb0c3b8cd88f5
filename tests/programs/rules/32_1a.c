/* Rule 32_1a (mutexes per expression text). */
struct mutex { int owner; };
void mutex_lock(struct mutex *m);
void mutex_unlock(struct mutex *m);
int mutex_trylock(struct mutex *m);
int mutex_lock_interruptible(struct mutex *m);
struct mutex a, b;

void bad_DoubleLock(void) { mutex_lock(&a); mutex_lock(&a); }
void safe_DoubleLock(void) { mutex_lock(&a); mutex_lock(&b); mutex_unlock(&b); mutex_unlock(&a); }
void bad_DoubleLockTry(void) { mutex_lock(&a); if (mutex_trylock(&a)) mutex_unlock(&a); mutex_unlock(&a); }
void safe_DoubleLockTry(void) { if (mutex_trylock(&a)) mutex_unlock(&a); }
void bad_DoubleUnlock(void) { mutex_lock(&a); mutex_unlock(&a); mutex_unlock(&a); }
void safe_DoubleUnlock(void) {
  if (mutex_lock_interruptible(&a) == 0) mutex_unlock(&a);
  /* The kernel's lock_interruptible fails with -EINTR only. */
  if (mutex_lock_interruptible(&b) < 0) return;
  mutex_unlock(&b);
}
void bad_LockedAtExit(void) { mutex_lock(&b); }
void safe_LockedAtExit(void) { mutex_lock(&b); mutex_unlock(&b); }
int main(void) { return 0; }
