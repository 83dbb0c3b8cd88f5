/* A command copied from user memory: the user can send any bytes, so
   ERROR is reachable once the copy succeeds.
   expect: cegar=false */
struct ctrl_command { unsigned int command; int dev_index; long dev; };
extern unsigned long copy_from_user(void *to, void const *from, unsigned long n);
void *user_arg;

int main(void) {
  struct ctrl_command cmd;
  cmd.command = 0U;
  if (copy_from_user((void *)&cmd, (void const *)user_arg, 24UL))
    return -14;
  if (cmd.command == 3U && cmd.dev_index == -1) {
  ERROR:;
  }
  return 0;
}
