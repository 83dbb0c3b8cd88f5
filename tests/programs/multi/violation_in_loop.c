/* A mutex taken in every iteration of a loop and released only after it:
 * the second iteration locks it twice. Allocations under the spinlock are
 * atomic, URBs are freed, module references balanced.
 * expect: 32_1=false 43_1a=true 08_1a=true 68_1=true */
struct mutex { int owner; };
typedef struct { int rlock; } spinlock_t;
struct urb;
extern void mutex_lock(struct mutex *lock);
extern void mutex_unlock(struct mutex *lock);
extern void spin_lock(spinlock_t *lock);
extern void spin_unlock(spinlock_t *lock);
extern void *kmalloc(unsigned long size, unsigned int flags);
extern struct urb *usb_alloc_urb(int iso_packets, unsigned int flags);
extern void usb_free_urb(struct urb *urb);
extern int __VERIFIER_nondet_int(void);
extern void ldv_check_final_state(void);

static struct mutex io_lock;
static spinlock_t stat_lock;

int main(void)
{
  int i = 0;
  struct urb *u;
  void *p;
  while (i < 4) {
    mutex_lock(&io_lock);            /* 32_1: locked again in iteration 2 */
    spin_lock(&stat_lock);
    p = kmalloc(16, 32U);            /* GFP_ATOMIC: fine under the spinlock */
    spin_unlock(&stat_lock);
    i++;
  }
  mutex_unlock(&io_lock);
  u = usb_alloc_urb(0, 208U);
  if (u)
    usb_free_urb(u);
  ldv_check_final_state();
  return 0;
}
