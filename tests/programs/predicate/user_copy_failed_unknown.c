/* Bytes of a copy from user memory that failed: the kernel may have zeroed
   what it did not copy, so reading them decides nothing.
   expect: cegar=unknown */
struct ctrl_command { unsigned int command; int dev_index; long dev; };
extern unsigned long copy_from_user(void *to, void const *from, unsigned long n);
void *user_arg;

int main(void) {
  struct ctrl_command cmd;
  if (copy_from_user((void *)&cmd, (void const *)user_arg, 24UL) != 0UL) {
    if (cmd.command == 3U) {
    ERROR:;
    }
  }
  return 0;
}
