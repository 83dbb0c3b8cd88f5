/* Error pointers and NULL are constants, not objects: their integer values
 * are known (PTR_ERR(ERR_PTR(-12)) == -12).
 * expect: symexec=false cegar=false */
int main(void)
{
  long err = -12;
  void *e = (void *)err;
  void *n = (void *)0;
  if ((long)e == -12 && (unsigned long)e >= (unsigned long)-4095L && (unsigned long)n == 0) {
  ERROR:
    return 1;
  }
  return 0;
}
