/* A tiny driver-like module with an LDV-style environment model. */
struct mutex { int locked; };
extern void mutex_lock(struct mutex *lock);
extern void mutex_unlock(struct mutex *lock);
extern int __VERIFIER_nondet_int(void);
extern void *kmalloc(unsigned long size, unsigned int flags);

static struct mutex dev_lock;
static int counter;

static int dev_open(void)
{
  int err = 0;
  mutex_lock(&dev_lock);
  if (__VERIFIER_nondet_int()) {
    err = -12;
    goto out;
  }
  counter++;
out:
  mutex_unlock(&dev_lock);
  return err;
}

int main(void)
{
  while (__VERIFIER_nondet_int()) {
    dev_open();
  }
  return 0;
}
