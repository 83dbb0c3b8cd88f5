/* The same array, but its address reaches the external call: the callee may
 * fill the slot, so the error is not unreachable; what it writes is not
 * modelled, so no error path is confirmed either.
 * expect: symexec=unknown cegar=unknown */
extern void dev_sync(void *buf, unsigned long n);
static void *slots[8];
int main(void)
{
  dev_sync((void *)slots, sizeof(slots));
  if (slots[3] != (void *)0) {
  ERROR:
    return 1;
  }
  return 0;
}
