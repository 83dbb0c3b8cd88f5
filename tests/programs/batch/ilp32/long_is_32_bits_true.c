/* ERROR is reachable under LP64 only: the task definition says ILP32. */
int main(void) {
  if (sizeof(long) != 4) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
