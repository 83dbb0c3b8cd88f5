/* A global array the program never takes the address of: no pointer
 * reaches it, so an external call that gets pointers cannot write it, and
 * the slot stays NULL.
 * expect: symexec=true cegar=true */
extern void dev_sync(void *buf, unsigned long n);
static void *slots[8];
static char buf[16];
int main(void)
{
  dev_sync((void *)buf, sizeof(buf));
  if (slots[3] != (void *)0) {
  ERROR:
    return 1;
  }
  return 0;
}
