/* LDV's Linux 4.x environment models assume every allocation lies below
 * 4 GiB (ldv_xmalloc: assume_abort_if_not(!ldv_is_err(p))). Some layout puts
 * the object there, so ERROR is reachable; with fixed addresses above 4 GiB
 * an encoding would prove it unreachable.
 * expect: symexec=unknown cegar=unknown */
extern void *malloc(unsigned long size);
extern void abort(void);
static void assume_abort_if_not(int cond) { if (!cond) abort(); }
int main(void)
{
  void *p = malloc(16);
  assume_abort_if_not(p != 0);
  assume_abort_if_not((unsigned long)p <= 4294967295UL);
ERROR:
  return 1;
}
