/* Rule 68_1b (coherent buffers). */
struct usb_device { int devnum; };
void *usb_alloc_coherent(struct usb_device *d, unsigned long size, unsigned int flags, unsigned long long *dma);
void usb_free_coherent(struct usb_device *d, unsigned long size, void *addr, unsigned long long dma);
void *usb_buffer_alloc(struct usb_device *d, unsigned long size, unsigned int flags, unsigned long long *dma);
char buf[8];

void bad_BadFree(struct usb_device *d) { usb_free_coherent(d, 8, buf, 0); }
void safe_BadFree(struct usb_device *d) { usb_free_coherent(d, 8, (void *)0, 0); }
void bad_Leak(struct usb_device *d) { void *b = usb_buffer_alloc(d, 8, 208, (unsigned long long *)0); }
void safe_Leak(struct usb_device *d) {
  void *b = usb_alloc_coherent(d, 8, 208, (unsigned long long *)0);
  usb_free_coherent(d, 8, b, 0);
}
int main(void) { return 0; }
