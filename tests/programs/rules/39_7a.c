/* Rule 39_7a (spinlocks per lock class). */
typedef struct spinlock { int slock; } spinlock_t;
void _spin_lock(spinlock_t *l);
unsigned long _spin_lock_irqsave(spinlock_t *l);
void _spin_unlock(spinlock_t *l);
void _spin_unlock_irqrestore(spinlock_t *l, unsigned long flags);
int _spin_trylock(spinlock_t *l);
void spin_unlock_wait(spinlock_t *l);
spinlock_t s1, s2;
/* The 3.x kernel shape: spin_lock_irqsave(&d->lock, f) is
   `tmp = spinlock_check(&d->lock); f = _raw_spin_lock_irqsave(tmp);`, and
   spin_unlock_irqrestore is an inline wrapper around the raw unlock. */
struct raw_spinlock { int raw; };
struct dev { spinlock_t lock; };
static inline struct raw_spinlock *spinlock_check(spinlock_t *l) { return (struct raw_spinlock *)l; }
unsigned long _raw_spin_lock_irqsave(struct raw_spinlock *l);
void _raw_spin_unlock_irqrestore(struct raw_spinlock *l, unsigned long flags);
static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags) {
  _raw_spin_unlock_irqrestore((struct raw_spinlock *)l, flags);
}

void bad_DoubleLock(void) { unsigned long f = _spin_lock_irqsave(&s1); _spin_lock(&s1); }
void safe_DoubleLock(void) { _spin_lock(&s1); _spin_lock(&s2); _spin_unlock(&s2); _spin_unlock(&s1); }
void bad_BadUnlock(void) { _spin_unlock(&s1); }
void safe_BadUnlock(void) { if (_spin_trylock(&s1)) _spin_unlock(&s1); }
void bad_WaitHeld(void) { _spin_lock(&s1); spin_unlock_wait(&s1); _spin_unlock(&s1); }
void safe_WaitHeld(void) { spin_unlock_wait(&s1); }
void bad_LockedAtExit(struct dev *d) {
  struct raw_spinlock *r = spinlock_check(&d->lock);
  unsigned long f = _raw_spin_lock_irqsave(r);
}
void safe_LockedAtExit(struct dev *d, struct dev *e) {
  unsigned long f = _spin_lock_irqsave(&s2);
  _spin_unlock_irqrestore(&s2, f);
  f = _raw_spin_lock_irqsave(spinlock_check(&d->lock));
  spin_unlock_irqrestore(&e->lock, f); /* same class: lock_of_dev */
}
int main(void) { return 0; }
