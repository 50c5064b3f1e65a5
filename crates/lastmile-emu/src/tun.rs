//! TUN devices (Linux `drivers/net/tun.c`, `Documentation/networking/tuntap.rst`): each
//! port of an emulation is a layer-3 device (`IFF_TUN`) without the packet-information
//! header (`IFF_NO_PI`) and without virtio-net headers, so the kernel hands over whole IPv4
//! datagrams with complete checksums and no segmentation offload (every datagram fits
//! the device's MTU). Descriptors are non-blocking; `TunPorts::wait` is a `ppoll` on all
//! of them with a nanosecond timeout, and the calling thread's timer slack is set to 1 ns
//! (`PR_SET_TIMERSLACK`) so that the kernel does not round its wake-ups up by the default
//! 50 µs.
//!
//! A device is created in the caller's network namespace and lives as long as its
//! descriptor (it is not made persistent): moving it into another namespace
//! (`ip link set DEV netns NS`) keeps the descriptor working, and closing the descriptor,
//! or the process dying, removes the device.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use crate::driver::Ports;

const TUNSETIFF: libc::c_ulong = 0x4004_54ca; // _IOW('T', 202, int)
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;

/// `struct ifreq` as TUNSETIFF reads it: the name and the flags (the rest is padding).
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// One TUN device.
#[derive(Debug)]
pub struct TunDevice {
    fd: OwnedFd,
    pub name: String,
}

impl TunDevice {
    /// Creates the device `name` (at most 15 bytes) in the current network namespace.
    pub fn create(name: &str) -> io::Result<Self> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains('/') {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("TUN device name \"{name}\": 1 to 15 bytes, no '/'"),
            ));
        }
        // SAFETY: a plain open(2) of a path; the result is checked.
        let raw = unsafe {
            libc::open(
                c"/dev/net/tun".as_ptr(),
                libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req = IfReq {
            name: [0; libc::IFNAMSIZ],
            flags: IFF_TUN | IFF_NO_PI,
            _pad: [0; 22],
        };
        for (dst, &src) in req.name.iter_mut().zip(name.as_bytes()) {
            *dst = src as libc::c_char;
        }
        // SAFETY: TUNSETIFF reads a `struct ifreq`, which `IfReq` lays out (40 bytes).
        let rc = unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(TunDevice {
            fd,
            name: name.to_string(),
        })
    }

    /// Reads one datagram; `None` if none is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: `buf` is valid for `buf.len()` bytes.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::WouldBlock || e.kind() == io::ErrorKind::Interrupted {
            Ok(None)
        } else {
            Err(e)
        }
    }

    /// Writes one datagram (the kernel takes it as received on the device).
    pub fn send(&self, datagram: &[u8]) -> io::Result<()> {
        // SAFETY: `datagram` is valid for its length.
        let n = unsafe {
            libc::write(
                self.fd.as_raw_fd(),
                datagram.as_ptr().cast(),
                datagram.len(),
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// The ports of an emulation as TUN devices, by port index.
#[derive(Debug, Default)]
pub struct TunPorts {
    devices: Vec<Option<TunDevice>>,
    pollfds: Vec<libc::pollfd>,
}

impl TunPorts {
    /// `count` ports, none open yet.
    pub fn new(count: usize) -> Self {
        TunPorts {
            devices: (0..count).map(|_| None).collect(),
            pollfds: Vec::new(),
        }
    }

    /// Creates port `port`'s device `name`.
    pub fn open(&mut self, port: usize, name: &str) -> io::Result<()> {
        let slot = self.devices.get_mut(port).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, format!("no port {port}"))
        })?;
        *slot = Some(TunDevice::create(name)?);
        self.pollfds = self
            .devices
            .iter()
            .flatten()
            .map(|d| libc::pollfd {
                fd: d.fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        Ok(())
    }

    /// The names of the devices open, by port (`None` for a port not open).
    pub fn names(&self) -> Vec<Option<String>> {
        self.devices
            .iter()
            .map(|d| d.as_ref().map(|d| d.name.clone()))
            .collect()
    }

    /// Closes every device (the kernel removes them).
    pub fn close(&mut self) {
        self.devices.iter_mut().for_each(|d| *d = None);
        self.pollfds.clear();
    }
}

/// The real-time priority the loop's thread asks for (`SCHED_FIFO`, 1..=99): above every
/// ordinary process, below the kernel's own real-time threads.
pub const REALTIME_PRIORITY: i32 = 10;

/// Asks for `SCHED_FIFO` at `REALTIME_PRIORITY` for the calling thread, so that other
/// processes on a loaded machine do not delay its wake-ups; true if granted (root or
/// `CAP_SYS_NICE`). The thread sleeps whenever no event is due, and the kernel's
/// real-time throttling (`sched_rt_runtime_us`) bounds it in any case.
pub fn realtime_thread() -> bool {
    let param = libc::sched_param {
        sched_priority: REALTIME_PRIORITY,
    };
    // SAFETY: sets the calling thread's policy; `param` lives across the call.
    unsafe { libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &param) == 0 }
}

/// Binds the calling thread to CPU `cpu` (`sched_setaffinity(2)` on thread id 0); true if
/// the kernel accepted it. With the run's own programs kept off that CPU, no process of
/// the run can hold it in a long system call (`fork`, `exec`, `exit`) when the loop's
/// timer fires: a kernel built without full preemption (`PREEMPT_NONE`) lets such a call
/// finish before even a real-time thread gets the CPU back.
pub fn pin_thread(cpu: usize) -> bool {
    if cpu >= libc::CPU_SETSIZE as usize {
        return false;
    }
    // SAFETY: `set` is a plain bit set, filled with the CPU_* helpers before the call.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}

/// Asks the kernel not to delay this thread's timed wake-ups (`prctl(2)`).
pub fn precise_timers() {
    // SAFETY: PR_SET_TIMERSLACK takes an integer; failure only leaves the default slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

impl Ports for TunPorts {
    fn wait(&mut self, timeout: Duration) -> io::Result<()> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: libc::c_long::from(timeout.subsec_nanos() as i32),
        };
        // SAFETY: `pollfds` is a valid array of its length; `ts` lives across the call.
        let rc = unsafe {
            libc::ppoll(
                self.pollfds.as_mut_ptr(),
                self.pollfds.len() as libc::nfds_t,
                &ts,
                std::ptr::null(),
            )
        };
        if rc < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        Ok(())
    }

    fn recv(&mut self, port: usize, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match self.devices.get(port) {
            Some(Some(d)) => d.recv(buf),
            _ => Ok(None),
        }
    }

    fn send(&mut self, port: usize, datagram: &[u8]) -> io::Result<()> {
        match self.devices.get(port) {
            Some(Some(d)) => d.send(datagram),
            _ => Err(io::Error::new(
                io::ErrorKind::NotConnected,
                format!("port {port} has no device"),
            )),
        }
    }

    fn count(&self) -> usize {
        self.devices.len()
    }
}
