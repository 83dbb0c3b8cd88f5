/* Rule 68_1 (URBs and coherent buffers). */
struct urb { int status; };
struct usb_device { int devnum; };
struct urb *usb_alloc_urb(int iso_packets, unsigned int flags);
void usb_free_urb(struct urb *u);
void *usb_alloc_coherent(struct usb_device *d, unsigned long size, unsigned int flags, unsigned long long *dma);
void usb_free_coherent(struct usb_device *d, unsigned long size, void *addr, unsigned long long dma);
struct urb u0;
char buf[8];

void bad_UrbFree(void) { usb_free_urb(&u0); }
void safe_UrbFree(void) { struct urb *u = usb_alloc_urb(0, 208); usb_free_urb(u); }
void bad_CoherentFree(struct usb_device *d) { usb_free_coherent(d, 8, buf, 0); }
void safe_CoherentFree(struct usb_device *d) {
  void *b = usb_alloc_coherent(d, 8, 208, (unsigned long long *)0);
  if (b) usb_free_coherent(d, 8, b, 0);
}
void bad_UrbLeak(void) { struct urb *u = usb_alloc_urb(0, 208); }
void safe_UrbLeak(void) { struct urb *u = usb_alloc_urb(0, 208); if (u) usb_free_urb(u); }
void bad_CoherentLeak(struct usb_device *d) { void *b = usb_alloc_coherent(d, 8, 208, (unsigned long long *)0); }
void safe_CoherentLeak(struct usb_device *d) {
  void *b = usb_alloc_coherent(d, 8, 208, (unsigned long long *)0);
  if (b != 0) usb_free_coherent(d, 8, b, 0);
}
int main(void) { return 0; }
