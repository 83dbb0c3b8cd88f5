/* A struct used only by its members keeps what the module wrote across an
 * external call; the error path through it is a real one.
 * expect: symexec=false cegar=false */
extern void dev_sync(void *buf, unsigned long n);
struct state {
  int open;
  int users[4];
};
static struct state st;
static char buf[16];
int main(void)
{
  st.users[2] = 7;
  dev_sync((void *)buf, sizeof(buf));
  if (st.users[2] == 7) {
  ERROR:
    return 1;
  }
  return 0;
}
