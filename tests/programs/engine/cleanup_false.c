/* `__attribute__((cleanup(f)))`: f(&var) runs when the variable's scope
 * is left, here by falling through the end of the block.
 * expect: symexec=false cegar=false */
int released;
static void release(int *p) { released = *p; }
int main(void)
{
  {
    int x __attribute__((cleanup(release))) = 7;
    x = 3;
  }
  if (released == 3) {
  ERROR:
    return 1;
  }
  return 0;
}
