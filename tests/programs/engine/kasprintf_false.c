/* kasprintf formats into a string it allocates: it writes nothing the
   module's pointers reach. `devs` is written through a pointer (its
   address is taken), so only under LDV's assumption that a kernel function
   without a model leaves the module's memory alone is the error path real.
   expect: cegar=false */
extern char *kasprintf(unsigned int gfp, const char *fmt, ...);
int devs[2];
int main(void) {
  char *name;
  int *first = devs;
  *first = 3;
  name = kasprintf(208U, "usb/%s", "dev");
  if (name != (char *)0 && devs[0] == 3) {
  ERROR:;
  }
  return 0;
}
