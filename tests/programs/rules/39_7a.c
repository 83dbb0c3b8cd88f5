/* Rule 39_7a (spinlocks per lock class). */
typedef struct spinlock { int slock; } spinlock_t;
void _spin_lock(spinlock_t *l);
unsigned long _spin_lock_irqsave(spinlock_t *l);
void _spin_unlock(spinlock_t *l);
void _spin_unlock_irqrestore(spinlock_t *l, unsigned long flags);
int _spin_trylock(spinlock_t *l);
void spin_unlock_wait(spinlock_t *l);
static inline spinlock_t *spinlock_check(spinlock_t *l) { return l; }
spinlock_t s1, s2;

void bad_DoubleLock(void) { unsigned long f = _spin_lock_irqsave(&s1); _spin_lock(&s1); }
void safe_DoubleLock(void) { _spin_lock(&s1); _spin_lock(&s2); _spin_unlock(&s2); _spin_unlock(&s1); }
void bad_BadUnlock(void) { _spin_unlock(&s1); }
void safe_BadUnlock(void) { if (_spin_trylock(&s1)) _spin_unlock(&s1); }
void bad_WaitHeld(void) { _spin_lock(&s1); spin_unlock_wait(&s1); _spin_unlock(&s1); }
void safe_WaitHeld(void) { spin_unlock_wait(&s1); }
void bad_LockedAtExit(void) { spinlock_t *r = spinlock_check(&s2); }
void safe_LockedAtExit(void) { unsigned long f = _spin_lock_irqsave(&s2); _spin_unlock_irqrestore(&s2, f); }
int main(void) { return 0; }
