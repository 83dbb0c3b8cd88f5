/* Rule 68_1a (URBs). */
struct urb { int status; };
struct urb *usb_alloc_urb(int iso_packets, unsigned int flags);
void usb_free_urb(struct urb *u);
struct urb u0;

void bad_BadFree(void) { usb_free_urb(&u0); }
void safe_BadFree(void) { usb_free_urb((struct urb *)0); }
void bad_Leak(void) { struct urb *u = usb_alloc_urb(0, 208); }
void safe_Leak(void) { struct urb *u = usb_alloc_urb(0, 208); usb_free_urb(u); }
int main(void) { return 0; }
