/* strlcat appends within the size it is given: the error depends only on
 * memory it does not write, so the path is real without any assumption.
 * expect: cegar=false */
struct dev { char phys[64]; int users; };
extern unsigned long strlcat(char *dst, const char *src, unsigned long size);
struct dev d;
int main(void)
{
  d.users = 1;
  strlcat(d.phys, "/input0", sizeof(d.phys));
  if (d.users == 1) {
  ERROR:
    return 1;
  }
  return 0;
}
