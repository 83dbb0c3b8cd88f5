/* snprintf whose result is used may write anywhere its pointer reaches:
   memory is unknown after it. The error depends only on registers, so it
   is reachable whatever snprintf writes.
   expect: cegar=false */
extern int snprintf(char *buf, unsigned long size, const char *fmt, ...);
int main(void) {
  char name[16];
  int users = 0;
  int n = snprintf(name, sizeof(name), "dev%d", 3);
  if (n >= 16)
    return 1;
  users = users + 1;
  if (users == 1) {
  ERROR:
    return 1;
  }
  return 0;
}
