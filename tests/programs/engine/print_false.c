/* printf only prints: the error path through it is real.
 * expect: cegar=false */
void printf(char *format);
int main(void) {
  int a = 1;
  printf("reached\n");
  if (a == 1) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
