/* Correct use of mutexes, spinlocks with atomic allocations, URBs and module
 * references, with data-dependent branches the analysis must correlate.
 * expect: 32_1=true 43_1a=true 08_1a=true 68_1=true */
struct mutex { int owner; };
typedef struct { int rlock; } spinlock_t;
struct urb;
struct module;
extern void mutex_lock(struct mutex *lock);
extern void mutex_unlock(struct mutex *lock);
extern void spin_lock(spinlock_t *lock);
extern void spin_unlock(spinlock_t *lock);
extern void *kmalloc(unsigned long size, unsigned int flags);
extern struct urb *usb_alloc_urb(int iso_packets, unsigned int flags);
extern void usb_free_urb(struct urb *urb);
extern int try_module_get(struct module *m);
extern void module_put(struct module *m);
extern int __VERIFIER_nondet_int(void);
extern void ldv_check_final_state(void);

static struct mutex m;
static spinlock_t s;
static struct module *owner;

static int work(int locked)
{
  void *p;
  if (locked) {
    spin_lock(&s);
    p = kmalloc(8, 32U);
    spin_unlock(&s);
  } else {
    p = kmalloc(8, 208U);
  }
  return p != 0;
}

int main(void)
{
  int got = 0;
  struct urb *u = 0;
  int n = __VERIFIER_nondet_int();
  if (try_module_get(owner))
    got = 1;
  mutex_lock(&m);
  work(n > 0);
  mutex_unlock(&m);
  if (n > 3)
    u = usb_alloc_urb(0, 208U);
  if (n > 3 && u)
    usb_free_urb(u);
  if (got)
    module_put(owner);
  ldv_check_final_state();
  return 0;
}
