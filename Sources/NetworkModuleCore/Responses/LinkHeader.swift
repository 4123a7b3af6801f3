import Foundation

/// The links of a `Link` header field (RFC 8288): `<https://api.example.com/items?page=2>;
/// rel="next", <…?page=9>; rel="last"`.
///
/// Total: it reads what it can of a malformed field, never traps. A link without its closing
/// `>` ends the field; a parameter without a value is ignored.
enum LinkHeader {
    struct Link: Equatable {
        /// The target, as written between `<` and `>`.
        let target: String
        /// The relation types of `rel`, lowercased (`rel="next last"` is two).
        let relations: [String]
    }

    static func links(in field: String) -> [Link] {
        var links: [Link] = []
        let scalars = Array(field.unicodeScalars)
        var index = 0
        while index < scalars.count {
            // Skip to the next "<": separators, whitespace, or anything unreadable.
            while index < scalars.count, scalars[index] != "<" { index += 1 }
            guard index < scalars.count else { break }
            let targetStart = index + 1
            var targetEnd = targetStart
            while targetEnd < scalars.count, scalars[targetEnd] != ">" { targetEnd += 1 }
            guard targetEnd < scalars.count else { break }
            let target = string(scalars[targetStart..<targetEnd])
            index = targetEnd + 1
            var relations: [String] = []
            // Parameters, up to the "," that ends this link (one outside quotes).
            while index < scalars.count, scalars[index] != "," {
                guard scalars[index] == ";" else {
                    index += 1
                    continue
                }
                index += 1
                let (name, value, next) = parameter(scalars, from: index)
                index = next
                if name == "rel", let value {
                    relations += value.lowercased().split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                }
            }
            links.append(Link(target: target.trimmingCharacters(in: .whitespaces), relations: relations))
        }
        return links
    }

    /// One `name=value` or `name="quoted value"` parameter from `start`; returns the lowercased
    /// name, the value (`nil` if there is none) and the index after it (at `;`, `,` or the end).
    private static func parameter(_ scalars: [Unicode.Scalar], from start: Int) -> (String, String?, Int) {
        var index = start
        var name = ""
        while index < scalars.count, scalars[index] != "=", scalars[index] != ";", scalars[index] != "," {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        name = name.trimmingCharacters(in: .whitespaces).lowercased()
        guard index < scalars.count, scalars[index] == "=" else { return (name, nil, index) }
        index += 1
        while index < scalars.count, scalars[index] == " " || scalars[index] == "\t" { index += 1 }
        var value = ""
        if index < scalars.count, scalars[index] == "\"" {
            index += 1
            while index < scalars.count, scalars[index] != "\"" {
                if scalars[index] == "\\", index + 1 < scalars.count { index += 1 }
                value.unicodeScalars.append(scalars[index])
                index += 1
            }
            if index < scalars.count { index += 1 }  // the closing quote
            while index < scalars.count, scalars[index] != ";", scalars[index] != "," { index += 1 }
        } else {
            while index < scalars.count, scalars[index] != ";", scalars[index] != "," {
                value.unicodeScalars.append(scalars[index])
                index += 1
            }
            value = value.trimmingCharacters(in: .whitespaces)
        }
        return (name, value, index)
    }

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}

extension NetworkResponse {
    /// The URL of the link whose relation is `rel` in the response's `Link` header (RFC 8288),
    /// resolved against the response's URL; `nil` when there is none, or it is not a URL.
    ///
    /// ```swift
    /// // Link: <https://api.example.com/notes?page=2>; rel="next", <…?page=9>; rel="last"
    /// let next = response.linkedURL(rel: "next")   // https://api.example.com/notes?page=2
    /// ```
    ///
    /// Relations compare ignoring case; a malformed header yields the links that could be read.
    public func linkedURL(rel: String) -> URL? {
        guard let field = headers["Link"] else { return nil }
        let relation = rel.lowercased()
        guard let link = LinkHeader.links(in: field).first(where: { $0.relations.contains(relation) }) else {
            return nil
        }
        return URL(string: link.target, relativeTo: httpResponse.url)?.absoluteURL
    }
}
