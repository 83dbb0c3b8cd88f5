/* The error needs what snprintf wrote into name, which is not modelled:
   no verdict either way.
   expect: cegar=unknown */
extern int snprintf(char *buf, unsigned long size, const char *fmt, ...);
int main(void) {
  char name[16];
  int n = snprintf(name, sizeof(name), "dev%d", 3);
  if (n >= 16)
    return 1;
  if (name[0] == 'd') {
  ERROR:
    return 1;
  }
  return 0;
}
