/* Rule 32_1 (all mutexes are one lock). */
struct mutex { int owner; };
void mutex_lock(struct mutex *m);
void mutex_lock_nested(struct mutex *m, unsigned int subclass);
void mutex_unlock(struct mutex *m);
int mutex_trylock(struct mutex *m);
int mutex_lock_interruptible_nested(struct mutex *m, unsigned int subclass);
struct mutex a, b;

/* Two different mutexes are the same lock for this model. */
void bad_DoubleLock(void) { mutex_lock(&a); mutex_lock_nested(&b, 0); }
void safe_DoubleLock(void) { mutex_lock(&a); mutex_unlock(&a); if (mutex_trylock(&b)) mutex_unlock(&b); }
void bad_BadUnlock(void) { if (mutex_trylock(&a) == 0) mutex_unlock(&a); }
void safe_BadUnlock(void) { if (mutex_lock_interruptible_nested(&a, 0) == 0) mutex_unlock(&a); }
void bad_LockedAtExit(void) { mutex_lock_nested(&a, 0); }
void safe_LockedAtExit(void) { mutex_lock(&a); mutex_unlock(&b); }
int main(void) { return 0; }
