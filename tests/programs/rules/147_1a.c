/* Rule 147_1a (no RCU update inside an RCU read-side critical section). */
struct list_head { struct list_head *next, *prev; };
void rcu_read_lock(void);
void rcu_read_unlock(void);
void rcu_read_lock_bh(void);
void rcu_read_unlock_bh(void);
void synchronize_rcu(void);
void list_add_rcu(struct list_head *n, struct list_head *head);
void list_del_rcu(struct list_head *e);

void bad_UpdateInReader(struct list_head *n, struct list_head *h) {
  rcu_read_lock(); rcu_read_lock_bh(); rcu_read_unlock(); list_add_rcu(n, h); rcu_read_unlock_bh();
}
void safe_UpdateInReader(struct list_head *n, struct list_head *h) {
  rcu_read_unlock(); rcu_read_lock(); rcu_read_unlock(); list_del_rcu(n); synchronize_rcu();
  list_add_rcu(n, h);
}
int main(void) { return 0; }
