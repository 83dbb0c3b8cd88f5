/* Writing the int member zeroes the char member too: ERROR is unreachable.
 * expect: symexec=unknown cegar=true|unknown */
union u {
  int a;
  char b;
};
int main(void) {
  union u d;
  d.a = 0;
  if (d.b != 0) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}
