/* No pointer reaches a variable whose address the program never takes: a
 * write through a pointer the environment supplies leaves the array as the
 * module wrote it.
 * expect: symexec=true cegar=true */
extern int *env_pointer(void);
static int table[4];
int main(void)
{
  int *p = env_pointer();
  table[1] = 3;
  *p = 5;
  if (table[1] != 3) {
  ERROR:
    return 1;
  }
  return 0;
}
