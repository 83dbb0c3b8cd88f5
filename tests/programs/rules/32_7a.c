/* Rule 32_7a (mutexes per lock class: `&d->lock` is class lock_of_dev). */
struct mutex { int owner; };
struct dev { struct mutex lock; struct mutex other; };
void mutex_lock(struct mutex *m);
void mutex_lock_nested(struct mutex *m, unsigned int subclass);
void mutex_unlock(struct mutex *m);
int mutex_trylock(struct mutex *m);
int mutex_lock_interruptible(struct mutex *m);
int mutex_is_locked(struct mutex *m);
struct mutex g;

/* Two devices' locks are one class. */
void bad_DoubleLock(struct dev *d, struct dev *e) { mutex_lock(&d->lock); mutex_lock_nested(&e->lock, 0); }
void safe_DoubleLock(struct dev *d) {
  mutex_lock(&d->lock); mutex_lock(&d->other); mutex_unlock(&d->other); mutex_unlock(&d->lock);
}
void bad_BadUnlock(struct dev *d) { mutex_lock(&d->lock); mutex_unlock(&d->other); mutex_unlock(&d->lock); }
void safe_BadUnlock(void) { if (mutex_trylock(&g)) mutex_unlock(&g); }
void bad_LockedAtExit(void) { if (mutex_is_locked(&g) == 0) mutex_lock(&g); }
void safe_LockedAtExit(void) { if (mutex_lock_interruptible(&g) == 0) mutex_unlock(&g); }
int main(void) { return 0; }
