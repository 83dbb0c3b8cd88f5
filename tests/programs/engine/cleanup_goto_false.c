/* A goto out of the scope of a variable with a cleanup runs the cleanup.
 * expect: symexec=false cegar=false */
int released;
static void release(int *p) { released = *p; }
int main(void)
{
  {
    int x __attribute__((cleanup(release))) = 4;
    goto out;
  }
out:
  if (released == 4) {
  ERROR:
    return 1;
  }
  return 0;
}
