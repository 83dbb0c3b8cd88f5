/* Rule 147_1a (RCU read locks). */
void rcu_read_lock(void);
void rcu_read_unlock(void);
void rcu_read_lock_bh(void);
void rcu_read_unlock_bh(void);

void bad_MoreUnlocks(void) { rcu_read_lock(); rcu_read_unlock(); rcu_read_unlock(); }
void safe_MoreUnlocks(void) { rcu_read_lock(); rcu_read_lock(); rcu_read_unlock(); rcu_read_unlock(); }
void bad_LockedAtExit(void) { rcu_read_lock(); }
void safe_LockedAtExit(void) { rcu_read_lock_bh(); rcu_read_unlock_bh(); }
void bad_MoreUnlocksBh(void) { rcu_read_unlock_bh(); }
void safe_MoreUnlocksBh(void) { rcu_read_lock_bh(); rcu_read_unlock_bh(); }
void bad_LockedAtExitBh(void) { rcu_read_lock_bh(); }
void safe_LockedAtExitBh(void) { rcu_read_lock(); rcu_read_unlock(); }
int main(void) { return 0; }
