/* A string literal's bytes are known: no path reaches the error.
 * expect: symexec=true cegar=true */
unsigned long strlen(const char *);
static const char *name = "dev";
struct driver { const char *name; };
static struct driver drv = { .name = "ab" };
int main(void)
{
  char *s = "A";
  if (s[0] != 65 || s[1] != 0)
    goto ERROR;
  if (strlen("abc") != 3 || name[2] != 'v')
    goto ERROR;
  if (drv.name[1] != 'b')
    goto ERROR;
  return 0;
ERROR:
  return 1;
}
