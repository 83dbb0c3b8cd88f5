/* The guard is a constant the program never changes: TRUE. */
static int locked = 0;
int main(void)
{
  locked = 1;
  if (locked != 1) {
  ERROR:
    return 1;
  }
  return 0;
}
