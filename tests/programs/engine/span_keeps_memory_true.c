/* Kernel functions that write a span of constant length (memset,
 * copy_from_user) change only that span: the lock flag of the global
 * device, which lies elsewhere, keeps its value across them.
 * expect: symexec=true */
struct dev { int locked; char name[8]; };
struct cmd { unsigned int command; int arg; };
struct dev d;
void *user_arg;
extern void *memset(void *s, int c, unsigned long n);
extern unsigned long copy_from_user(void *to, void const *from, unsigned long n);
int main(void)
{
  struct cmd c;
  d.locked = 0;
  memset(d.name, 'x', sizeof(d.name));
  if (copy_from_user((void *)&c, (void const *)user_arg, sizeof(c)))
    return -14;
  if (d.locked != 0) {
  ERROR:
    return 1;
  }
  return 0;
}
