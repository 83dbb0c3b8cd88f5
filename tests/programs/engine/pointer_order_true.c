/* Ordering pointers orders their integer values: NULL is below every
 * object in every layout, and error pointers lie above every object.
 * expect: symexec=true cegar=true */
int g;
int main(void)
{
  int *p = &g;
  void *err = (void *)-12L;
  if ((void *)p <= (void *)0 || (void *)p >= err) {
  ERROR:
    return 1;
  }
  return 0;
}
