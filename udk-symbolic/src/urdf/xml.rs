//! The XML layer under `urdf-rs`.
//!
//! - The elements udk ignores (`<visual>`, `<collision>`, `<material>`, `<gazebo>`,
//!   `<transmission>`) are dropped before `urdf-rs` reads the file, so that what they hold
//!   cannot refuse a file whose dynamics are well defined. Example: a `<texture/>` without a
//!   `filename`, which urdfdom and Pinocchio accept.
//! - `urdf-rs` reports no positions. When it refuses the file, each `<link>` and `<joint>` is
//!   read again on its own, and the error names the first that fails, with its line.

use xml::common::Position;
use xml::reader::{EventReader, XmlEvent};
use xml::writer::EmitterConfig;

/// Elements whose content never reaches the dynamics.
const IGNORED: [&str; 5] = ["visual", "collision", "material", "gazebo", "transmission"];

/// A `<link>` or `<joint>` element of the robot, as text with the ignored elements dropped.
struct Element {
    tag: String,
    name: String,
    line: u64,
    text: String,
}

/// Parses the URDF `text` of the file named `file` (for messages) with `urdf-rs`, after
/// dropping the elements udk ignores.
///
/// # Errors
/// A message naming the file and a line: XML that is not well formed (line and column); a
/// file with no `<link>`; a `<link>` or `<joint>` that `urdf-rs` refuses (its line, tag and
/// name, and `urdf-rs`'s reason); any other refusal of `urdf-rs`, with its reason.
pub fn parse(file: &str, text: &str) -> Result<urdf_rs::Robot, String> {
    let (filtered, elements) = filter(text).map_err(|(line, column, message)| {
        format!("{file}:{line}:{column}: not well-formed XML: {message}")
    })?;
    if !elements.iter().any(|element| element.tag == "link") {
        return Err(format!(
            "{file}: the file has no links; a URDF robot needs at least its root link"
        ));
    }
    urdf_rs::read_from_string(&filtered).map_err(|e| {
        let culprit = elements.iter().find(|element| {
            let alone = format!("<robot name=\"udk\">{}</robot>", element.text);
            urdf_rs::read_from_string(&alone).is_err()
        });
        match culprit {
            Some(element) => format!(
                "{file}:{}: <{} name=\"{}\">: not a valid URDF element: {e}",
                element.line, element.tag, element.name
            ),
            None => format!("{file}: not a valid URDF file: {e}"),
        }
    })
}

/// `text` without the ignored elements, and the robot's `<link>` and `<joint>` elements on
/// their own; an XML error as (line, column, message), both 1-based.
#[allow(clippy::type_complexity)]
fn filter(text: &str) -> Result<(String, Vec<Element>), (u64, u64, String)> {
    let mut reader = EventReader::from_str(text);
    let config = || EmitterConfig::new().write_document_declaration(false);
    let mut out = config().create_writer(Vec::new());
    let mut elements = Vec::new();
    let mut current: Option<(Element, xml::EventWriter<Vec<u8>>)> = None;
    // Depth of the element being read (1: `<robot>`), and the depth at which an ignored
    // element began, while inside one.
    let mut depth = 0usize;
    let mut ignored_from: Option<usize> = None;
    loop {
        let event = reader.next().map_err(|e| {
            let at = e.position();
            (at.row + 1, at.column + 1, e.msg().to_owned())
        })?;
        let line = reader.position().row + 1;
        match &event {
            XmlEvent::EndDocument => break,
            XmlEvent::StartElement {
                name, attributes, ..
            } => {
                depth += 1;
                if ignored_from.is_none() && IGNORED.contains(&name.local_name.as_str()) {
                    ignored_from = Some(depth);
                }
                let tag = name.local_name.as_str();
                if depth == 2 && ignored_from.is_none() && (tag == "link" || tag == "joint") {
                    let name = (attributes.iter())
                        .find(|a| a.name.local_name == "name")
                        .map_or_else(String::new, |a| a.value.clone());
                    let element = Element {
                        tag: tag.to_owned(),
                        name,
                        line,
                        text: String::new(),
                    };
                    current = Some((element, config().create_writer(Vec::new())));
                }
            }
            _ => {}
        }
        let end = matches!(event, XmlEvent::EndElement { .. });
        if ignored_from.is_none() {
            if let Some(written) = event.as_writer_event() {
                // The writer only refuses events that do not nest, which a reader that
                // accepted the document never yields.
                let _ = out.write(written.clone());
                if let Some((_, writer)) = &mut current {
                    let _ = writer.write(written);
                }
            }
        }
        if end {
            if ignored_from == Some(depth) {
                ignored_from = None;
            }
            if depth == 2 {
                if let Some((mut element, writer)) = current.take() {
                    element.text = String::from_utf8_lossy(&writer.into_inner()).into_owned();
                    elements.push(element);
                }
            }
            depth -= 1;
        }
    }
    Ok((
        String::from_utf8_lossy(&out.into_inner()).into_owned(),
        elements,
    ))
}
