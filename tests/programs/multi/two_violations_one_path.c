/* Two rules violated on one path (double mutex lock, then a sleeping
 * allocation under a spinlock); module references are balanced; no URBs.
 * expect: 32_1=false 43_1a=false 08_1a=true 68_1=true */
struct mutex { int owner; };
typedef struct { int rlock; } spinlock_t;
struct module;
extern void mutex_lock(struct mutex *lock);
extern void mutex_unlock(struct mutex *lock);
extern void spin_lock(spinlock_t *lock);
extern void spin_unlock(spinlock_t *lock);
extern void *kmalloc(unsigned long size, unsigned int flags);
extern void kfree(void const *p);
extern int try_module_get(struct module *m);
extern void module_put(struct module *m);
extern int __VERIFIER_nondet_int(void);
extern void ldv_check_final_state(void);

static struct mutex cfg_lock;
static spinlock_t irq_lock;
static struct module *owner;

static int dev_probe(void)
{
  void *buf;
  if (!try_module_get(owner))
    return -1;
  mutex_lock(&cfg_lock);
  if (__VERIFIER_nondet_int())
    mutex_lock(&cfg_lock);          /* 32_1: the mutex is locked twice */
  spin_lock(&irq_lock);
  buf = kmalloc(64, 208U);           /* 43_1a: GFP_KERNEL under a spinlock */
  spin_unlock(&irq_lock);
  kfree(buf);
  mutex_unlock(&cfg_lock);
  module_put(owner);
  return 0;
}

int main(void)
{
  dev_probe();
  ldv_check_final_state();
  return 0;
}
